// Downloads model files from a Hugging Face-style hub into a local cache (embedding models, GGUF files).
export { hubFileUrl, cachedModelDir, cachedFilePath, isModelCached, DEFAULT_REVISION, DEFAULT_HUB_URL } from "./hub-paths.js";
export { fetchRemoteSizes, downloadModelFiles, type DownloadProgress, type HubOptions } from "./download.js";
export { DOWNLOAD_HELP } from "./hub-errors.js";
