import { expect } from "vitest";
import { ChunkpadError } from "../../src/core/errors.js";

/** What went wrong in the code under test, for tests that check the error a user would see. */

/** What the promise rejected with, or undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
}

/** The ChunkpadError the promise rejected with; resolving, or rejecting with anything else, fails the test. */
export async function chunkpadRejection(promise: Promise<unknown>): Promise<ChunkpadError> {
  const reason = await rejectionOf(promise);
  expect(reason).toBeInstanceOf(ChunkpadError);
  return reason as ChunkpadError;
}

/** What the call threw, or undefined when it returned. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The ChunkpadError the call threw; returning, or throwing anything else, fails the test. */
export function chunkpadThrown(action: () => unknown): ChunkpadError {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(ChunkpadError);
  return error as ChunkpadError;
}
