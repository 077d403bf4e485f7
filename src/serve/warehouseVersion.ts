import { stat } from "node:fs/promises";

/**
 * What changes when a writer commits to a warehouse file: the size and modification time of
 * the file and of its write-ahead log (`FILE.wal`, absent between checkpoints). Read before
 * a result is computed, so a result is never kept under a newer version than its data.
 */
export async function warehouseVersion(db: string): Promise<string> {
  const of = async (file: string) => {
    try {
      const s = await stat(file);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return "-";
    }
  };
  return `${await of(db)}|${await of(`${db}.wal`)}`;
}
