import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import yauzl from "yauzl";

/**
 * yauzl's view of a zip file: positioned reads through our FileHandle, served from one cached
 * block (default 1 MiB), so reading a central directory of many small records costs one read
 * per block instead of two per entry. The handle is its owner's to close.
 */
export class BlockReader extends yauzl.RandomAccessReader {
  private block: Buffer = Buffer.alloc(0);
  private blockStart = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly fileBytes: number,
    private readonly blockBytes = 1024 * 1024,
  ) {
    super();
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    this.readAsync(buffer, offset, length, position).then(
      (bytesRead) => callback(null, bytesRead),
      (error: Error) => callback(error),
    );
  }

  private async readAsync(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    let { block, blockStart } = this;
    if (position < blockStart || position + length > blockStart + block.length) {
      if (length > this.blockBytes) return (await this.handle.read(buffer, offset, length, position)).bytesRead;
      const size = Math.max(0, Math.min(this.blockBytes, this.fileBytes - position));
      const loaded = Buffer.allocUnsafe(size);
      const { bytesRead } = await this.handle.read(loaded, 0, size, position);
      block = loaded.subarray(0, bytesRead);
      blockStart = position;
      this.block = block;
      this.blockStart = blockStart;
    }
    const start = position - blockStart;
    const end = Math.min(start + length, block.length);
    block.copy(buffer, offset, start, end);
    return Math.max(0, end - start);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const handle = this.handle;
    return Readable.from(
      (async function* () {
        for (let position = start; position < end; ) {
          const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, end - position));
          const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
          if (bytesRead === 0) return;
          position += bytesRead;
          yield chunk.subarray(0, bytesRead);
        }
      })(),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    setImmediate(() => callback(null));
  }
}
