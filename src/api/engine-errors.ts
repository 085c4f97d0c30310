// Submits a command to the engine and turns its refusals into API errors.
import type { AppContext } from '../context.js';
import type { CommandResult } from '../engine/engine.js';
import { EngineRejection, type Command } from '../engine/types.js';
import { ApiError } from './envelope.js';

export async function submitToEngine(ctx: AppContext, cmd: Command): Promise<CommandResult> {
  try {
    return await ctx.trading.runner.submit(cmd);
  } catch (err) {
    if (err instanceof EngineRejection) throw new ApiError(err.httpStatus, err.errorCode, err.message);
    throw err;
  }
}
