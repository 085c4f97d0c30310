// A start-up failure whose message is complete for an operator (what is wrong and which setting or step fixes it):
// shown as it is, without a stack trace.
export class SetupError extends Error {
  override name = 'SetupError';
}
