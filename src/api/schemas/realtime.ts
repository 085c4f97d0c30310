// The wire schemas live in src/protocol/wire (shared with the SDK); re-exported for the routes.
export * from '../../protocol/wire/realtime.js';
