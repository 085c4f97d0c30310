// Waiting a bounded time for work that goes on regardless (a stop that must not hang on a part that cannot finish).

/** Whether `work` ended (resolved or rejected) within `ms`; its outcome is not reported. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return ended;
}
