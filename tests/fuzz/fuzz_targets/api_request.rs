//! The request decoder (`EndpointRequest::from_json`): a whole endpoint
//! call as an app's JSON, through the wire layer's strict reading and its
//! own wire-path tracking (`streamseal_wire::requests::decode`).
//!
//! Oracle: never panics; `MALFORMED_JSON` exactly when the text is not JSON
//! or has a key twice in one object (`streamseal::wire::parse_value`, which
//! refuses what serde_json would read keeping the last of two; a fuzz run
//! found that difference once the decoder refused it); any other refusal is
//! `VALIDATION_FAILED` with at
//! least one detail, each with at least one reason; reading the text and
//! reading serde_json's value of it agree; a request that decodes builds
//! (`api::build_request` under a context with a key), deterministically.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamseal::api::{Context, EndpointRequest, build_request};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::secret::ApiKey;
use streamseal::{Error, ErrorCode};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let decoded = EndpointRequest::from_json(text);
    let Ok(value) = streamseal::wire::parse_value(text) else {
        assert!(
            matches!(&decoded, Err(e) if e.code() == ErrorCode::MalformedJson),
            "not JSON (or a key twice), yet {decoded:?}"
        );
        return;
    };
    let request = match decoded {
        Ok(request) => request,
        Err(Error::ValidationFailed { details }) => {
            assert!(!details.is_empty(), "no details");
            assert!(
                details.values().all(|reasons| !reasons.is_empty()),
                "{details:?}"
            );
            assert!(
                matches!(EndpointRequest::from_value(value), Err(Error::ValidationFailed { details: again }) if again == details),
                "the value read otherwise"
            );
            return;
        }
        Err(other) => panic!("JSON, yet {other:?}"),
    };
    assert_eq!(
        EndpointRequest::from_value(value).as_ref().ok(),
        Some(&request),
        "the value read otherwise"
    );
    let (Ok(workspace), Ok(key)) = (
        WorkspaceId::parse("ws_01J80000000000000000000000"),
        ApiKey::parse("svc_bk_fuzz"),
    ) else {
        panic!("the context's ids do not parse");
    };
    let ctx = Context::new("https://chat.example.test", workspace, Some(key));
    let built = build_request(&ctx, &request);
    assert!(built.is_ok(), "decoded and validated, yet {built:?}");
    assert_eq!(
        build_request(&ctx, &request).ok(),
        built.ok(),
        "not deterministic"
    );
});
