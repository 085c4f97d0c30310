// Complete WebSocket text frames (RFC 6455 section 5.2), built once and written as-is to every subscriber's
// socket. A server frame is never masked and this server never compresses or fragments, so the bytes of one
// message are the same for every connection: header and payload go out in one buffer and one write.

const FIN_TEXT = 0x81;

/** One unfragmented, unmasked text frame holding `payload` (a string is encoded as UTF-8). */
export function textFrame(payload: string | Buffer): Buffer {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = FIN_TEXT;
  if (header === 2) {
    frame[1] = length;
  } else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  if (typeof payload === 'string') frame.write(payload, header, 'utf8');
  else payload.copy(frame, header);
  return frame;
}

/** The payload of a frame made by `textFrame` (tests and diagnostics). */
export function framePayload(frame: Buffer): Buffer {
  const short = frame[1]! & 0x7f;
  return frame.subarray(short < 126 ? 2 : short === 126 ? 4 : 10);
}
