//! Params as sloppy clients send them, taken as they meant them.
//! `tower-lsp-server`'s router takes a method without params only with no
//! `params` or `null`, and a method whose params are all optional only with
//! an object. Emacs lsp-mode 8 (Debian 12, Ubuntu 24.04) sends `shutdown`
//! with `{}`: refused, the client times out and kills the server on every
//! restart. The protocol's types say what each method takes; what a client
//! puts where nothing is expected is dropped, and what it leaves out where
//! an empty object means the same is filled in.

use serde_json::Value;
use tower_lsp_server::jsonrpc::Request;

/// Methods that take no params (`shutdown`, `exit`): whatever comes is dropped.
const NO_PARAMS: &[&str] = &["shutdown", "exit"];

/// Methods whose params are an object of optional members only
/// (`InitializedParams` is `{}`): none or `null` is taken as `{}`.
const EMPTY_OBJECT: &[&str] = &["initialized"];

/// Optional members the protocol's types refuse as `null` (a list with a
/// default, not an `Option`): `null` is taken as absent.
const NULL_IS_ABSENT: &[(&str, &str)] = &[("workspace/executeCommand", "arguments")];

/// `request` with its params as the method takes them.
pub fn accept(request: Request) -> Request {
    let method = request.method();
    let drop_params = NO_PARAMS.contains(&method) && request.params().is_some();
    let fill = EMPTY_OBJECT.contains(&method) && request.params().is_none_or(Value::is_null);
    let null_member = NULL_IS_ABSENT
        .iter()
        .find(|(m, member)| {
            *m == method
                && request
                    .params()
                    .is_some_and(|p| p[member].is_null() && p.get(member).is_some())
        })
        .map(|(_, member)| *member);
    if !drop_params && !fill && null_member.is_none() {
        return request;
    }
    let (method, id, params) = request.into_parts();
    let mut builder = Request::build(method);
    if fill {
        builder = builder.params(Value::Object(Default::default()));
    } else if let (Some(member), Some(mut params)) = (null_member, params) {
        if let Some(members) = params.as_object_mut() {
            members.remove(member);
        }
        builder = builder.params(params);
    }
    if let Some(id) = id {
        builder = builder.id(id);
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(message: Value) -> Request {
        serde_json::from_value(message).unwrap()
    }

    #[test]
    fn params_where_none_are_taken_are_dropped_and_an_empty_object_is_filled_in() {
        for params in [json!({}), json!([]), Value::Null, json!({"x": 1})] {
            let shutdown = accept(request(
                json!({"jsonrpc": "2.0", "id": "s-1", "method": "shutdown", "params": params}),
            ));
            assert_eq!(shutdown.params(), None);
            assert_eq!(
                serde_json::to_value(&shutdown).unwrap(),
                json!({"jsonrpc": "2.0", "id": "s-1", "method": "shutdown"})
            );
            let exit = accept(request(
                json!({"jsonrpc": "2.0", "method": "exit", "params": params}),
            ));
            assert_eq!(exit.params(), None);
            assert_eq!(exit.id(), None);
        }
        for initialized in [
            json!({"jsonrpc": "2.0", "method": "initialized"}),
            json!({"jsonrpc": "2.0", "method": "initialized", "params": null}),
        ] {
            assert_eq!(accept(request(initialized)).params(), Some(&json!({})));
        }
        // What a method takes is passed on untouched.
        let hover =
            json!({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}});
        assert_eq!(
            serde_json::to_value(accept(request(hover.clone()))).unwrap(),
            hover
        );
        // A list left `null` is taken as none.
        let command = json!({"jsonrpc": "2.0", "id": 8, "method": "workspace/executeCommand",
            "params": {"command": "c", "arguments": null}});
        assert_eq!(
            accept(request(command)).params(),
            Some(&json!({"command": "c"}))
        );
        let command = json!({"jsonrpc": "2.0", "id": 8, "method": "workspace/executeCommand",
            "params": {"command": "c", "arguments": [1]}});
        assert_eq!(
            serde_json::to_value(accept(request(command.clone()))).unwrap(),
            command
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "initialized", "params": {"x": 1}});
        assert_eq!(
            serde_json::to_value(accept(request(initialized.clone()))).unwrap(),
            initialized
        );
    }
}
