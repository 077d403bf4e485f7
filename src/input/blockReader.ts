import type { FileHandle } from "node:fs/promises";

/**
 * Positioned reads of a file through a FileHandle, served from one cached block (default
 * 1 MiB), so reading a central directory of many small records costs one read per block
 * instead of two per entry. The handle is its owner's to close.
 */
export class BlockReader {
  private block: Buffer = Buffer.alloc(0);
  private blockStart = 0;

  constructor(
    private readonly handle: FileHandle,
    /** The file's size, bytes. */
    readonly fileBytes: number,
    private readonly blockBytes = 1024 * 1024,
  ) {}

  /**
   * The `length` bytes at `position`, fewer where the file ends before. The result may be a
   * view of the cached block: valid until the next read, copy what must outlive it.
   */
  async read(position: number, length: number): Promise<Buffer> {
    if (position < this.blockStart || position + length > this.blockStart + this.block.length) {
      if (length > this.blockBytes) {
        const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.fileBytes - position)));
        const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, position);
        return buffer.subarray(0, bytesRead);
      }
      const size = Math.max(0, Math.min(this.blockBytes, this.fileBytes - position));
      const loaded = Buffer.allocUnsafe(size);
      const { bytesRead } = await this.handle.read(loaded, 0, size, position);
      this.block = loaded.subarray(0, bytesRead);
      this.blockStart = position;
    }
    const start = position - this.blockStart;
    return this.block.subarray(start, Math.min(start + length, this.block.length));
  }
}
