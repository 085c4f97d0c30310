// Realtime test helpers: API keys and tokens, the real `centrifuge` client, and a raw protocol client.
import { WebSocket } from 'ws';
import { Centrifuge, type Options } from 'centrifuge';
import type { TestExchange } from './server.js';

export const wsUrl = (ex: { url: string }) => ex.url.replace(/^http/, 'ws') + '/connection/websocket';

export async function createApiKey(ex: TestExchange, address: string): Promise<string> {
  const res = await ex.admin('POST', '/admin/api-keys', { address });
  if (res.status !== 200) throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.apiKey as string;
}

export async function fetchToken(ex: TestExchange, apiKey: string): Promise<string> {
  const res = await ex.get('/user/realtime-token/api-key', { 'x-api-key': apiKey });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

/** A centrifuge client on Node (ws as its WebSocket) with short reconnect delays. */
export function centrifugeClient(url: string, opts: Partial<Options>): Centrifuge {
  return new Centrifuge(url, {
    websocket: WebSocket,
    minReconnectDelay: 50,
    maxReconnectDelay: 200,
    timeout: 3000,
    ...opts,
  });
}

/** Polls until the probe returns (or resolves to) something truthy. */
export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = any;

/** A bare WebSocket client speaking the JSON protocol, for cases the centrifuge client never produces. */
export class RawClient {
  readonly messages: Message[] = [];
  closeCode: number | undefined;
  closeReason = '';
  private nextId = 1;
  answerPings = true;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      for (const line of data.toString().split('\n')) {
        if (line.trim() === '') continue;
        const msg = JSON.parse(line) as Message;
        if (this.answerPings && Object.keys(msg).length === 0) ws.send('{}');
        this.messages.push(msg);
      }
    });
    ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
    });
  }

  static open(url: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new RawClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Sends commands in one frame (newline-separated); returns the ids given to them. */
  send(...commands: Message[]): number[] {
    const ids = commands.map((c) => (c.id === undefined ? (c.id = this.nextId++) : c.id) as number);
    this.ws.send(commands.map((c) => JSON.stringify(c)).join('\n'));
    return ids;
  }

  reply(id: number, timeoutMs = 5000): Promise<Message> {
    return waitFor(() => this.messages.find((m) => m.id === id), timeoutMs, `reply ${id}`);
  }

  async call(command: Message): Promise<Message> {
    const [id] = this.send(command);
    return this.reply(id!);
  }

  pushes(channel?: string): Message[] {
    return this.messages.filter((m) => m.push && (channel === undefined || m.push.channel === channel));
  }

  closed(timeoutMs = 5000): Promise<number> {
    return waitFor(() => this.closeCode, timeoutMs, 'close');
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Opens a raw client and connects it with the token. */
export async function rawConnected(url: string, token: string): Promise<RawClient> {
  const c = await RawClient.open(url);
  const reply = await c.call({ connect: { token } });
  if (!reply.connect) throw new Error(`connect failed: ${JSON.stringify(reply)}`);
  return c;
}

export { freePort } from '../../src/local-services/free-port.js';
