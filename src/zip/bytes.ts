/** Little-endian field access over a byte view. */
export class ByteReader {
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u16(at: number): number {
    return this.view.getUint16(at, true);
  }

  u32(at: number): number {
    return this.view.getUint32(at, true);
  }

  /** 64-bit fields as numbers: exact up to 2^53, far beyond any real archive. */
  u64(at: number): number {
    return this.view.getUint32(at, true) + this.view.getUint32(at + 4, true) * 0x1_0000_0000;
  }
}
