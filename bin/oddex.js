#!/usr/bin/env node
// The `oddex` command: runs the TypeScript CLI through tsx (no build step). The repository's tsconfig is named
// because the command may start anywhere; its `paths` has @oddex/sdk resolve to the client's source.
import { join } from 'node:path';
import process from 'node:process';
import { register } from 'tsx/esm/api';

register({ tsconfig: join(import.meta.dirname, '..', 'tsconfig.json') });
// `oddex migrate` works on the store itself, not through the exchange's API: the server side's own entry point.
if (process.argv[2] === 'migrate') await import('../src/migrate.ts');
else await import('../src/cli/main.ts');
