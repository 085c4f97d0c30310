// A Lua script run in Redis through ioredis's own script commands: on each connection the first call is sent whole
// (EVAL), later ones by SHA1. A reconnect to a Redis that forgot its scripts (a restart that kept its data) is a new
// connection, so no call meets NOSCRIPT there and none is sent again behind later ones: calls run in call order.
import type { Redis } from 'ioredis';

type ScriptCommand = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;

let defined = 0;

export class RedisScript {
  /** The command's name on the connections it is defined on. */
  private readonly name = `oddexScript${++defined}`;
  private readonly connections = new WeakSet<Redis>();

  constructor(private readonly source: string) {}

  run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (!this.connections.has(redis)) {
      redis.defineCommand(this.name, { lua: this.source });
      this.connections.add(redis);
    }
    const command = (redis as unknown as Record<string, ScriptCommand>)[this.name]!;
    return command.call(redis, keys.length, ...keys, ...args);
  }
}
