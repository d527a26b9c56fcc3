// Anchors the C target; the declarations are in include/.
