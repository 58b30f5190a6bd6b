//! OTLP messages built by hand for the OTLP tests.

use proftab::formats::otlp::proto::{
    self, AnyValue, Function, KeyValueAndUnit, Line, Location, ProfilesData, ProfilesDictionary,
    ResourceProfiles, ScopeProfiles, Stack, Value, ValueType,
};
use prost::Message;

/// One message holding `samples` (already encoded) in a profile with the given header bytes.
pub fn message_with_samples(samples: Vec<Vec<u8>>, attribute_values: &[&str]) -> Vec<u8> {
    let mut strings = vec![
        "".to_owned(),
        "samples".into(),
        "count".into(),
        "main".into(),
        "key".into(),
    ];
    let mut attribute_table = vec![KeyValueAndUnit::default()];
    for v in attribute_values {
        attribute_table.push(KeyValueAndUnit {
            key_strindex: 4,
            value: Some(AnyValue {
                value: Some(Value::StringValue((*v).to_owned())),
            }),
            unit_strindex: 0,
        });
    }
    strings.push("unused".into());
    let profile = proto::Profile {
        sample_type: Some(ValueType {
            type_strindex: 1,
            unit_strindex: 2,
        }),
        samples,
        time_unix_nano: 1_000_000_000,
        ..Default::default()
    };
    ProfilesData {
        resource_profiles: vec![ResourceProfiles {
            resource: None,
            scope_profiles: vec![ScopeProfiles {
                scope: None,
                profiles: vec![profile.encode_to_vec()],
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
        dictionary: Some(ProfilesDictionary {
            mapping_table: vec![Default::default()],
            location_table: vec![
                Location::default(),
                Location {
                    lines: vec![Line {
                        function_index: 1,
                        line: 7,
                        column: 0,
                    }],
                    ..Default::default()
                },
            ],
            function_table: vec![
                Function::default(),
                Function {
                    name_strindex: 3,
                    ..Default::default()
                },
            ],
            link_table: vec![Default::default()],
            string_table: strings,
            attribute_table,
            stack_table: vec![
                Stack::default(),
                Stack {
                    location_indices: vec![1],
                },
            ],
        }),
    }
    .encode_to_vec()
}
