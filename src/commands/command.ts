/** The contract every command module implements; cli.ts only dispatches. */
export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Fires on SIGINT/SIGTERM; long-running commands stop their work and resolve. */
  signal: AbortSignal;
}

/** Resolves to the process exit status. Throw a LiquidatorError for user-facing failures. */
export type Command = (args: string[], io: CommandIO) => Promise<number>;
