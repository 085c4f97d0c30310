// `oddex`: the operator's and trader's command line, on the typed client (public HTTP and realtime API only).
// Exit codes: 0 done, 1 the exchange refused (errorCode printed), 2 bad usage, 3 no answer from the exchange.
import { Command, CommanderError, Option } from 'commander';
import { OddexApiError, OddexNetworkError } from '@oddex/sdk';
import { CliContext } from './context.js';
import { UsageError } from './credentials.js';
import { registerOperatorCommands } from './commands/operator.js';
import { registerTraderCommands } from './commands/trader.js';
import { registerParlayCommands } from './commands/parlay.js';
import { toJson } from './output.js';

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export function buildProgram(): Command {
  const program = new Command('oddex')
    .description('Command line for an Oddex exchange: operator tasks and trading')
    .addOption(new Option('--url <url>', 'exchange base URL').env('ODDEX_URL').default('http://127.0.0.1:8080'))
    .option('--json', 'machine-readable JSON output', false)
    .addOption(new Option('--key-file <file>', 'file holding the wallet private key (or ODDEX_PRIVATE_KEY)').env('ODDEX_KEY_FILE'))
    .addOption(new Option('--admin-token-file <file>', 'file holding the admin token (or ODDEX_ADMIN_TOKEN; default data/admin-token)').env('ODDEX_ADMIN_TOKEN_FILE'))
    .showHelpAfterError()
    .exitOverride();
  const cli = new CliContext(program);
  registerOperatorCommands(program, cli);
  registerTraderCommands(program, cli);
  registerParlayCommands(program, cli);
  program.addHelpText(
    'after',
    '\noddex migrate: operator, run on the server\'s machine: applies pending database migrations to ODDEX_DATABASE_URL, or\n' +
      'to the SQLite data dir (ODDEX_DATA_DIR, default data) without it.\n' +
      '\nAmounts are in base-token units (12.5 = 12.5 USDC), odds in percent (52.5).\n' +
      'Secrets come from the environment or files, never arguments: ODDEX_PRIVATE_KEY or ODDEX_KEY_FILE, ODDEX_API_KEY, ODDEX_ADMIN_TOKEN.',
  );
  for (const c of program.commands) c.exitOverride();
  return program;
}

function report(err: unknown, json: boolean): number {
  if (err instanceof CommanderError) {
    // Help and version are not errors; commander has printed them already.
    return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? EXIT.ok : EXIT.usage;
  }
  const fail = (code: string, message: string, extra: Record<string, unknown> = {}) => {
    if (json) process.stdout.write(toJson({ status: 'failure', errorCode: code, message, ...extra }) + '\n');
    else process.stderr.write(`error: ${code}: ${message}\n`);
  };
  if (err instanceof OddexApiError) {
    fail(err.errorCode, err.reason, { httpStatus: err.status, ...(err.details !== undefined ? { details: err.details } : {}) });
    return EXIT.refused;
  }
  if (err instanceof UsageError) {
    fail('USAGE', err.message);
    return EXIT.usage;
  }
  if (err instanceof OddexNetworkError) {
    fail('UNREACHABLE', err.message);
    return EXIT.unreachable;
  }
  fail('INTERNAL', err instanceof Error ? err.message : String(err));
  return EXIT.refused;
}

export async function run(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    return report(err, program.opts<{ json?: boolean }>().json ?? false);
  }
}

// A reader that stops early (`oddex trades | head`) closes the pipe: the command ends there, quietly, as other
// command-line tools do, rather than with an unhandled EPIPE and its stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(EXIT.ok);
});
process.exitCode = await run(process.argv.slice(2));
