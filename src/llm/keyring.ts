/**
 * The OS keychain (macOS Keychain, Windows Credential Manager, Secret Service on Linux) behind
 * a three-method interface, so the secret store can be tested with a fake and can fall back
 * when there is no keychain (headless Linux: every call throws, which the store catches).
 */
export interface Keyring {
  /** The secret, or null when none is stored. Throws when the keychain cannot be used. */
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  /** True when something was deleted. */
  delete(service: string, account: string): Promise<boolean>;
}

type AsyncEntryConstructor = new (service: string, account: string) => {
  getPassword(): Promise<string | null>;
  setPassword(password: string): Promise<void>;
  deletePassword(): Promise<boolean>;
};

/** @napi-rs/keyring, loaded on first use so a missing native binary is a fallback, not a crash. */
export function createOsKeyring(): Keyring {
  let loaded: Promise<AsyncEntryConstructor> | undefined;
  const entry = async (service: string, account: string) => {
    loaded ??= import("@napi-rs/keyring").then((module) => module.AsyncEntry as AsyncEntryConstructor);
    const AsyncEntry = await loaded;
    return new AsyncEntry(service, account);
  };
  return {
    get: async (service, account) => (await entry(service, account)).getPassword(),
    set: async (service, account, secret) => (await entry(service, account)).setPassword(secret),
    delete: async (service, account) => (await entry(service, account)).deletePassword(),
  };
}
