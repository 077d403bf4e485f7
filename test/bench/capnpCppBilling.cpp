// The C++ reference of `cloudunits billing` in the bench: a whole process that walks a tree of
// consumption files, reads each with the Cap'n Proto C++ library (the code `capnp compile
// -oc++` generates for the schema) and sums the environment's CU, SU, TU and NU exactly as the
// capnp-es peer does (capnpEsBilling.mjs: the same formulas, compensated sums), printing the
// same JSON so that the bench checks the figures agree. Built at bench time by capnpCpp.mjs
// (never committed as a binary):
//
//   capnpCppBilling TREE START END
#include "resourcemonitoring.capnp.h"
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

const double MB_PER_GB = 1024, GB_PER_CU = 4, VCPUS_PER_CU = 2, GB_PER_SU = 1024, IOPS_PER_TU = 400;
const double BYTES_PER_NU = 1024.0 * 1024.0 * 1024.0 * 1024.0;

double cuOf(double mem, double vcpus) { return std::max(mem / MB_PER_GB / GB_PER_CU, vcpus / VCPUS_PER_CU); }

/** A compensated (Neumaier) sum, as the peer's. */
struct Sum {
  double s = 0, c = 0;
  void add(double x) {
    double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? s - t + x : x - t + s;
    s = t;
  }
  double value() const { return s + c; }
};

struct Env {
  Sum su, tu, bytes;
  std::unordered_map<long, std::pair<double, double>> hours;  // hour → (mem, vcpus)
};

std::vector<capnp::word> buffer;

/** Reads and bills one file of account-hour `hour`. */
void billFile(const std::string& path, long hour, Env& env) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) { perror(path.c_str()); exit(1); }
  struct stat st;
  fstat(fd, &st);
  size_t words = (st.st_size + 7) / 8;
  if (buffer.size() < words) buffer.resize(words);
  size_t got = 0;
  char* into = reinterpret_cast<char*>(buffer.data());
  while (got < (size_t)st.st_size) {
    ssize_t n = read(fd, into + got, st.st_size - got);
    if (n <= 0) { perror(path.c_str()); exit(1); }
    got += n;
  }
  close(fd);
  capnp::ReaderOptions options;
  options.traversalLimitInWords = 1ull << 40;
  capnp::FlatArrayMessageReader message(kj::ArrayPtr<const capnp::word>(buffer.data(), words), options);
  Account::Reader account = message.getRoot<Account>();
  double hourMem = 0, hourVcpus = 0;
  for (CloudSpace::Reader cs : account.getCloudspaces()) {
    for (VMachine::Reader m : cs.getMachines()) {
      double bytes = 0;
      for (Nic::Reader nic : m.getNetworks()) {
        if (nic.getType() != "external") continue;
        bytes += (double)nic.getTx() + (double)nic.getRx();
      }
      kj::StringPtr type = m.getType();
      if (type == "routeros") {
        env.bytes.add(bytes);
        continue;
      }
      if (type != "vm") continue;
      double size = 0, iops = 0;
      for (Disk::Reader disk : m.getDisks()) {
        size += disk.getSize();
        if (!disk.hasConfiguredIops()) continue;
        ConfiguredIopsStruct::Reader c = disk.getConfiguredIops();
        double total = c.getTotalIopsSec(), rw = (double)c.getReadIopsSec() + (double)c.getWriteIopsSec();
        iops += total > 0 ? total : rw > 0 ? rw : 0;
      }
      env.su.add(size / GB_PER_SU);
      env.tu.add(iops / IOPS_PER_TU);
      env.bytes.add(bytes);
      hourMem += m.getMem();
      hourVcpus += m.getVcpus();
    }
  }
  auto& h = env.hours[hour];
  h.first += hourMem;
  h.second += hourVcpus;
}

/** Walks `dir` (`ACCOUNT/YYYY/M/D/H/file`), billing the files of hours in [start, end). */
void walk(const std::string& dir, std::vector<long>& parts, long start, long end, Env& env) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) { perror(dir.c_str()); exit(1); }
  std::vector<std::pair<std::string, bool>> entries;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    bool isDir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      stat((dir + "/" + name).c_str(), &st);
      isDir = S_ISDIR(st.st_mode);
    }
    entries.emplace_back(name, isDir);
  }
  closedir(d);
  for (auto& [name, isDir] : entries) {
    std::string path = dir + "/" + name;
    if (isDir) {
      parts.push_back(std::atol(name.c_str()));
      walk(path, parts, start, end, env);
      parts.pop_back();
    } else if (parts.size() == 5) {
      struct tm t = {};
      t.tm_year = parts[1] - 1900;
      t.tm_mon = parts[2] - 1;
      t.tm_mday = parts[3];
      t.tm_hour = parts[4];
      long hour = timegm(&t);
      if (hour >= start && hour < end) billFile(path, hour, env);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s TREE START END\n", argv[0]);
    return 2;
  }
  Env env;
  std::vector<long> parts;
  walk(argv[1], parts, std::atol(argv[2]), std::atol(argv[3]), env);
  Sum cu;
  for (auto& [hour, h] : env.hours) cu.add(cuOf(h.first, h.second));
  printf("{\"consumption\":{\"CU\":%.17g,\"SU\":%.17g,\"TU\":%.17g,\"NU\":%.17g}}\n", cu.value(), env.su.value(), env.tu.value(),
         env.bytes.value() / BYTES_PER_NU);
  return 0;
}
