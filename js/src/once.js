// The `init` of each browser entry: loads that module's WebAssembly once
// (later calls return the same promise; a failed load may be retried).
export function loadOnce(initWasm) {
  let ready;
  return function init(source) {
    if (ready === undefined) {
      const options = source === undefined ? undefined : { module_or_path: source };
      ready = initWasm(options).then(() => undefined);
      ready.catch(() => {
        ready = undefined;
      });
    }
    return ready;
  };
}
