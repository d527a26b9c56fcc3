// Secret holders (every exported class) after free(): a second free() and
// any later use throw a StreamsealError (code INVALID_FIELD: the object
// given is no longer valid) instead of wasm-bindgen's bare
// "null pointer passed to rust". The build (`cargo xtask wasm`) makes the
// glue's own argument check do the same for freed objects passed to
// functions.

/** Guards every class of `exports` that has `free()`. */
export function guardFreedObjects(exports, StreamsealError) {
  for (const klass of Object.values(exports)) {
    if (typeof klass !== "function" || typeof klass.prototype?.free !== "function") continue;
    const proto = klass.prototype;
    if (proto.__streamsealGuarded) continue;
    const freed = (self, what) => {
      if (self.__wbg_ptr === 0) {
        throw new StreamsealError(
          "INVALID_FIELD",
          `field \`this\` is invalid: ${klass.name}.${what} after free(): the ${klass.name} was freed`,
        );
      }
    };
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === "constructor" || name.startsWith("__")) continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (typeof d.value === "function") {
        const inner = d.value;
        Object.defineProperty(proto, name, {
          ...d,
          value: function (...args) {
            freed(this, name);
            return inner.apply(this, args);
          },
        });
      } else if (d.get) {
        const get = d.get;
        Object.defineProperty(proto, name, {
          ...d,
          get() {
            freed(this, name);
            return get.call(this);
          },
        });
      }
    }
    if (typeof Symbol.dispose === "symbol") proto[Symbol.dispose] = proto.free;
    Object.defineProperty(proto, "__streamsealGuarded", { value: true });
  }
}
