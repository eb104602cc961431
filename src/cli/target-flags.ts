/**
 * `--target` and the SVC_* environment into the target a command uses, the same way for every command:
 * a file wins over the environment (and the run says so on stderr), the environment wins over the
 * embedded reference (the engine names the target it read from it, once its checks passed).
 */
import { chooseTargets, type TargetChoice } from '../target/read-target.ts';

export function targetChoice(
  command: string,
  /** The `--target` files: conformance's several, another command's one or none. */
  files: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): TargetChoice {
  const choice = chooseTargets(command, files, env);
  if (choice.notice !== undefined) write(choice.notice);
  return choice;
}

/** Where a run's lines go: stderr, beside the progress. */
export const logLine = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** A one-target command's `--target` as the file list `targetChoice` takes. */
export const oneTarget = (target: string | undefined): readonly string[] => (target === undefined ? [] : [target]);
