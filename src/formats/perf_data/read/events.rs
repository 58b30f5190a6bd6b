//! The events (attrs) of the recording: one value type per event name, as perf-script names it.

use linux_perf_data::linux_perf_event_reader::{
    BranchSampleFormat, HardwareEventId, PerfEventAttr, PerfEventType, SampleFormat,
    SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::PerfFile;

use super::super::META_EVENT;
use crate::formats::perf_script::event_value_type;
use crate::model::{ProfileBuilder, StringId, ValueTypeIndex};

/// What a sample of one event needs.
pub(super) struct Event {
    pub value_type: ValueTypeIndex,
    /// The full name (`cycles:u`), for the `.event` column.
    pub name: StringId,
    /// The attr's fixed sampling period, for samples without PERIOD.
    pub fixed_period: Option<u64>,
    /// `--call-graph lbr`: the branch stack is a call stack.
    pub lbr: bool,
    /// `--call-graph dwarf`: samples carry a copy of the user stack.
    pub dwarf: bool,
    pub attr: PerfEventAttr,
}

/// The events of `file`, in attr order; adds their value types and `perf.event` meta rows.
pub(super) fn events(b: &mut ProfileBuilder, file: &PerfFile) -> Vec<Event> {
    file.event_attributes()
        .iter()
        .map(|a| {
            let name = a
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| fallback_name(&a.attr));
            b.add_meta(META_EVENT, &name);
            let base = event_value_type(&name);
            let unit = if base.ends_with("-clock") {
                "nanoseconds"
            } else {
                "count"
            };
            let attr = a.attr;
            Event {
                value_type: b.value_type(base, unit),
                name: b.intern(&name),
                fixed_period: match attr.sampling_policy {
                    SamplingPolicy::Period(p) => Some(p.get()),
                    _ => None,
                },
                lbr: attr.sample_format.contains(SampleFormat::BRANCH_STACK)
                    && attr
                        .branch_sample_format
                        .contains(BranchSampleFormat::CALL_STACK),
                dwarf: attr.sample_format.contains(SampleFormat::STACK_USER),
                attr,
            }
        })
        .collect()
}

/// perf's name of a hardware or software event, for files without event descriptions.
fn fallback_name(attr: &PerfEventAttr) -> String {
    use HardwareEventId as H;
    use SoftwareCounterType as S;
    let name = match attr.type_ {
        PerfEventType::Hardware(id, _) => match id {
            H::CpuCycles => "cycles",
            H::Instructions => "instructions",
            H::CacheReferences => "cache-references",
            H::CacheMisses => "cache-misses",
            H::BranchInstructions => "branches",
            H::BranchMisses => "branch-misses",
            H::BusCycles => "bus-cycles",
            H::StalledCyclesFrontend => "stalled-cycles-frontend",
            H::StalledCyclesBackend => "stalled-cycles-backend",
            H::RefCpuCycles => "ref-cycles",
            _ => return format!("{:?}", attr.type_),
        },
        PerfEventType::Software(id) => match id {
            S::CpuClock => "cpu-clock",
            S::TaskClock => "task-clock",
            S::PageFaults => "page-faults",
            S::ContextSwitches => "context-switches",
            S::CpuMigrations => "cpu-migrations",
            S::PageFaultsMin => "minor-faults",
            S::PageFaultsMaj => "major-faults",
            S::AlignmentFaults => "alignment-faults",
            S::EmulationFaults => "emulation-faults",
            S::Dummy => "dummy",
            S::BpfOutput => "bpf-output",
            S::CgroupSwitches => "cgroup-switches",
            _ => return format!("{:?}", attr.type_),
        },
        other => return format!("{other:?}"),
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::event_value_type;
    #[test]
    fn modifiers_are_dropped() {
        assert_eq!(event_value_type("cycles:u"), "cycles");
        assert_eq!(event_value_type("cpu-clock:pppH"), "cpu-clock");
        assert_eq!(event_value_type("sched:sched_switch"), "sched:sched_switch");
    }

    /// Found by fuzzing (perf_script): an event named `samples` added its periods to the
    /// one-per-sample `samples` count.
    #[test]
    fn an_event_named_samples_keeps_its_own_type() {
        assert_eq!(event_value_type("samples"), "samples-event");
        assert_eq!(event_value_type("samples:u"), "samples-event");
    }
}
