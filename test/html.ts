// Reading HTML the way a browser parses it (parse5), for tests of the pages and documents we render.
import type { DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** Every element under a node, in document order. */
export function elements(node: Node, found: Element[] = []): Element[] {
  if ('tagName' in node) found.push(node);
  if ('childNodes' in node) for (const child of node.childNodes) elements(child, found);
  return found;
}

/** A node's text, as its text nodes hold it (entities decoded). */
export function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}
