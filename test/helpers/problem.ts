import assert from 'node:assert/strict';

/** Asserts a refusal by status and stable code; the body goes into the message, since it says why. */
export function isProblem(r: { status: number; body: any }, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.code, code, JSON.stringify(r.body));
}
