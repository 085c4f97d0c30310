#!/usr/bin/env node
// The `oddex` command: runs the TypeScript CLI through tsx (no build step). The repository's tsconfig is named
// because the command may start anywhere; its `paths` has @oddex/sdk resolve to the client's source.
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

register({ tsconfig: join(import.meta.dirname, '..', 'tsconfig.json') });
await import('../src/cli/main.ts');
