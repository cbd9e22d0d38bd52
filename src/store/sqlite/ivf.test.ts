import { describe, expect, it } from "vitest";
import { fromHalf, toHalf } from "./ivf.js";

/** The float16 copies a search re-scores with: every one of the 65,536 values decodes to the number it stands for. */
describe("the index's float16 copies", () => {
  it("decode every float16 value exactly, and encode it back to the same bits", () => {
    for (let half = 0; half < 65536; half++) {
      const sign = half & 0x8000 ? -1 : 1;
      const exponent = (half >>> 10) & 0x1f;
      const mantissa = half & 0x3ff;
      const value = fromHalf(half);
      if (exponent === 31 && mantissa !== 0) {
        expect(value).toBeNaN();
        continue;
      }
      const expected = exponent === 0 ? sign * mantissa * 2 ** -24 : exponent === 31 ? sign * Infinity : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
      expect(value).toBe(expected);
      if (exponent !== 31) expect(toHalf(value)).toBe(half);
    }
  });

  it("round a vector component to its nearest float16 (half a step: 2^-11 of the value, 2^-25 below 2^-14)", () => {
    for (const value of [0.1, -0.036, 0.999, 1e-5, -0.5, 3e-7]) expect(Math.abs(fromHalf(toHalf(value)) - value)).toBeLessThanOrEqual(Math.max(Math.abs(value) * 2 ** -11, 2 ** -25));
  });
});
