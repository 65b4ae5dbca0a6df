/**
 * A message for the next page shown, e.g. "Task #12 deleted." after a deletion that leaves the page it was made
 * on: the page it goes to shows it once.
 */
let pending: string | null = null;

export function flash(message: string): void {
  pending = message;
}

export function takeFlash(): string | null {
  const message = pending;
  pending = null;
  return message;
}
