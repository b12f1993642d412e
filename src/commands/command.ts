// The shape every command module has: its help text and a main that returns the exit code.
// The CLI (src/cli.ts) maps names to modules and turns typed errors into one-line messages.

export interface CommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export interface CommandModule {
  /** One line for `makerd --help`. */
  summary: string;
  /** Full text for `makerd <command> --help`. */
  help: string;
  main(argv: string[], io: CommandIO): Promise<number>;
}

/** Thrown for a bad flag or argument: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
