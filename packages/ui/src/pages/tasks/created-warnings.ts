/**
 * The server's warning about a task created in this page (its receiving nodes offline), kept until the page is
 * closed so the task's own page shows it: the answer to the creation is the only place the server says it.
 */
const warnings = new Map<number, string>();

export function rememberWarning(taskId: number, warning: string | undefined): void {
  if (warning) warnings.set(taskId, warning);
}

export function warningOf(taskId: number): string | undefined {
  return warnings.get(taskId);
}
