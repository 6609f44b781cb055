// The synthetic render models live beside the renderers (the local render route uses them too).
export * from '../src/render/sample';
