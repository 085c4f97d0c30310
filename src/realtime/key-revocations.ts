// API key revocations shared through Redis, so a key revoked on the exchange process ends its sessions on every
// realtime node and its tokens stop working there. A revocation is kept as long as a token issued before it could
// still be valid (the token lifetime); a node loads those at start and hears new ones as they happen.
import type { Redis } from 'ioredis';

export class RedisKeyRevocations {
  /** Revoked key ids and when remembering them stops mattering (ms), oldest first: memory follows a token lifetime. */
  private readonly revoked = new Map<string, number>();
  private readonly channel: string;
  private readonly onMessage = (channel: string, keyId: string) => {
    if (channel !== this.channel) return;
    this.remember(keyId);
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
      for (const key of keys) this.remember(key.slice(keyPrefix.length));
      cursor = next;
    } while (cursor !== '0');
    return this;
  }

  async revoke(keyId: string): Promise<void> {
    this.remember(keyId);
    await this.redis.set(`${this.prefix}:revoked:${keyId}`, '1', 'EX', this.keepSeconds);
    await this.redis.publish(this.channel, keyId);
  }

  isRevoked(keyId: string): boolean {
    return this.revoked.has(keyId);
  }

  /** Records a revocation for one token lifetime from now, and forgets those whose lifetime has passed. */
  private remember(keyId: string): void {
    const now = Date.now();
    for (const [id, until] of this.revoked) {
      if (until > now) break;
      this.revoked.delete(id);
    }
    this.revoked.delete(keyId); // re-inserted last: the map stays in expiry order
    this.revoked.set(keyId, now + this.keepSeconds * 1000);
  }

  close(): void {
    this.subscriber.off('message', this.onMessage);
    this.subscriber.disconnect();
    this.redis.disconnect();
  }
}
