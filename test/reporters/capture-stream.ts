/** A console stream for the console reporter's tests: keeps what it was written, a terminal or not, 200 columns wide. */
import { Writable } from 'node:stream';

export class Capture extends Writable {
  text = '';
  isTTY: boolean;
  columns = 200;
  constructor(isTTY: boolean) {
    super();
    this.isTTY = isTTY;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}
