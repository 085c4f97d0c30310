import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { framePayload, textFrame } from './ws-frame.js';

// ws's own frame builder is the independent reference (its types do not declare it).
const wsSender = (ws as unknown as { Sender: { frame(data: Buffer, options: object): Buffer[] } }).Sender;
const wsTextFrame = (payload: Buffer) =>
  Buffer.concat(wsSender.frame(payload, { fin: true, rsv1: false, opcode: 1, mask: false, readOnly: false }));

describe('textFrame', () => {
  it.each([0, 1, 125, 126, 127, 65_535, 65_536, 200_000])('matches ws for a %i-byte payload, string or Buffer', (n) => {
    const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2); // 2-byte UTF-8 characters: bytes != chars
    const bytes = Buffer.from(text);
    expect(bytes.length).toBe(n);
    const expected = wsTextFrame(bytes);
    expect(textFrame(text).equals(expected)).toBe(true);
    expect(textFrame(bytes).equals(expected)).toBe(true);
    expect(framePayload(textFrame(text)).toString()).toBe(text);
  });
});
