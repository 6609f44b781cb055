// Font files are bundled as binary data (wrangler.toml [[rules]] type "Data"): an ArrayBuffer.
declare module '*.ttf' {
  const data: ArrayBuffer;
  export default data;
}
