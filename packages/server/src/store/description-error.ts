/** A description that cannot be taken; `field` is where (dotted, with list indexes). */
export class DescriptionError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`field '${field}' ${problem}`);
  }
}
