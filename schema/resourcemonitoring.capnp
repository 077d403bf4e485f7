# The consumption file schema of the platform (service API document, section 2.6).
# This file is the source of truth for src/capnp/; the decoder's offsets follow it.
@0xd4ab4ab7a1b6f3c1;

struct Account {
  accountId @0 :UInt32;
  cloudspaces @1 :List(CloudSpace);
}

struct CloudSpace {
  cloudSpaceId @0 :Int32;
  accountId @1 :Int32;
  machines @2 :List(VMachine);
  state @3 :Text;
}

struct VMachine {
  id @0 :Int32;
  type @1 :Text;
  vcpus @2 :Int8;
  cpuMinutes @3 :Float32;
  mem @4 :Float32;
  networks @5 :List(Nic);
  disks @6 :List(Disk);
  imageName @7 :Text;
  status @8 :Text;
}

struct Nic {
  id @0 :Int32;
  type @1 :Text;
  tx @2 :Float32;
  rx @3 :Float32;
}

struct Disk {
  id @0 :Int32;
  size @1 :Float32;
  iopsRead @2 :Float32;
  iopsWrite @3 :Float32;
  iopsReadMax @4 :Float32;
  iopsWriteMax @5 :Float32;
  configuredIops @6 :ConfiguredIopsStruct;
}

struct ConfiguredIopsStruct {
  totalBytesSec @0 :Float32;
  readBytesSec @1 :Float32;
  writeBytesSec @2 :Float32;
  totalIopsSec @3 :Float32;
  readIopsSec @4 :Float32;
  writeIopsSec @5 :Float32;
  totalBytesSecMax @6 :Float32;
  readBytesSecMax @7 :Float32;
  writeBytesSecMax @8 :Float32;
  totalIopsSecMax @9 :Float32;
  readIopsSecMax @10 :Float32;
  writeIopsSecMax @11 :Float32;
  sizeIopsSec @12 :Float32;
}
