/** cloudunits: the public API. Everything public is exported here, by name. */
export * from "./errors.js";
export type * from "./capnp/records.js";
export type * from "./input/types.js";
export { parseTime, isoUtc } from "./time.js";
export { SCHEMA_SQL, DATA_TABLES } from "./store/schema.js";
