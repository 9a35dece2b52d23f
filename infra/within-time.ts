/**
 * `work`, or an error after `ms`, whichever comes first. The work itself goes on: use it only for work that is safe to
 * leave running (an idempotent write, a read).
 */
export async function withinTime<T>(work: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
