/** Little-endian record building. */
export class ByteWriter {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private at = 0;

  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }

  u16(value: number): this {
    this.view.setUint16(this.at, value, true);
    this.at += 2;
    return this;
  }

  u32(value: number): this {
    this.view.setUint32(this.at, value >>> 0, true);
    this.at += 4;
    return this;
  }

  u64(value: number): this {
    this.view.setUint32(this.at, value % 0x1_0000_0000, true);
    this.view.setUint32(this.at + 4, Math.floor(value / 0x1_0000_0000), true);
    this.at += 8;
    return this;
  }

  put(bytes: Uint8Array): this {
    this.bytes.set(bytes, this.at);
    this.at += bytes.length;
    return this;
  }

  done(): Uint8Array {
    if (this.at !== this.bytes.length) throw new Error(`record is ${this.at} bytes, expected ${this.bytes.length}`);
    return this.bytes;
  }
}
