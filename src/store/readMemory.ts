/**
 * DuckDB's memory for a command that reads a warehouse through the billing engine (`forecast`,
 * `alerts`, `top`, the dashboard's pages): what it caches of the file stays under this, so the
 * peak does not grow with the rows read (20,000 machines' month cached 280 MB more than 2,000's);
 * the file is read again from the system's cache when needed, and a query that needs more is
 * run again with more (`withMemoryToSpare`).
 */
export const ENGINE_READ_MEMORY_BYTES = 64 * 1024 * 1024;
