// The drain follows connections without changing how the server answers them.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { trackConnections } from './http-drain.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('http drain', () => {
  it('leaves a WebSocket handshake to a server without the realtime role answered as a request (404), not hanging', async () => {
    const server = createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    servers.push(server);
    trackConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          'GET /connection/websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString().split('\r\n')[0]!);
      });
      socket.once('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve('no answer in 2 s');
      }, 2000);
    });
    expect(answer).toBe('HTTP/1.1 404 Not Found');
  });
});
