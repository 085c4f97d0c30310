// API key revocations shared through Redis, so a key revoked on the exchange process ends its sessions on every
// realtime node and its tokens stop working there. A revocation is kept as long as a token issued before it could
// still be valid (the token lifetime); a node loads those at start and hears new ones as they happen.
import type { Redis } from 'ioredis';

export class RedisKeyRevocations {
  private readonly revoked = new Set<string>();
  private readonly channel: string;
  private readonly onMessage = (channel: string, keyId: string) => {
    if (channel !== this.channel) return;
    this.revoked.add(keyId);
    this.onRevoked(keyId);
  };

  constructor(
    private readonly redis: Redis,
    /** A connection in subscriber mode of its own; closed with the rest by `close`. */
    private readonly subscriber: Redis,
    private readonly prefix: string,
    /** How long a revocation must be remembered: the realtime token lifetime. */
    private readonly keepSeconds: number,
    private readonly onRevoked: (keyId: string) => void,
  ) {
    this.channel = `${prefix}:revoked`;
  }

  /** Listens for revocations, then loads those still within a token lifetime. */
  async start(): Promise<this> {
    this.subscriber.on('message', this.onMessage);
    await this.subscriber.subscribe(this.channel);
    const keyPrefix = `${this.prefix}:revoked:`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      for (const key of keys) this.revoked.add(key.slice(keyPrefix.length));
      cursor = next;
    } while (cursor !== '0');
    return this;
  }

  async revoke(keyId: string): Promise<void> {
    this.revoked.add(keyId);
    await this.redis.set(`${this.prefix}:revoked:${keyId}`, '1', 'EX', this.keepSeconds);
    await this.redis.publish(this.channel, keyId);
  }

  isRevoked(keyId: string): boolean {
    return this.revoked.has(keyId);
  }

  close(): void {
    this.subscriber.off('message', this.onMessage);
    this.subscriber.disconnect();
    this.redis.disconnect();
  }
}
