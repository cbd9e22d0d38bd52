/** Most neighbours a caller may ask for on each side. */
export const MAX_NEIGHBOURS = 10;
