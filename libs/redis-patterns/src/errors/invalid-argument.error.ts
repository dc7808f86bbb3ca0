/** Thrown when a call receives an argument it cannot use; `argument` names it (e.g. `policy.limit`). */
export class InvalidArgumentError extends TypeError {
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`Invalid argument "${argument}": ${message}`);
  }

  override get name(): string {
    return this.constructor.name;
  }
}
