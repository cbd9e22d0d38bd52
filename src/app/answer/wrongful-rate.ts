/** The share of wrongful answers `chunkpad eval --calibrate-guardrail` aims at when none is given. */
export const DEFAULT_WRONGFUL_RATE = 0.1;
