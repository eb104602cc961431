/** Test helper: the message of the harness error `run` throws, after checking its code. */
import { expect } from 'vitest';
import { type ErrorCode, isHarnessError } from '../../src/shared/errors.ts';

export function harnessErrorMessage(code: ErrorCode, run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isHarnessError(error) && error.code).toBe(code);
    return (error as Error).message;
  }
  throw new Error(`expected a ${code} error`);
}
