// Script: the steps of `xrpm-monitor --script FILE`, parsed and checked before anything runs,
// so a typo fails at once with file:line instead of halfway through a test.
//
// One step per line: a verb and its arguments separated by spaces (the rest of the line is one
// argument for verbs that take a path or a name); blank lines and lines starting with '#' are
// ignored. Verbs and their arguments:
//
//   launch-emulator SCENARIO [OPTION...]   start xrpm-emulator locally (the options go to it,
//                                 e.g. --objects 5000000) and connect to it
//   connect HOST:PORT             connect to a running agent
//   disconnect
//   capture                       capture the heap (waits until the snapshot is in)
//   capture-start                 start a capture; waits only until objects arrive (so a
//                                 screenshot shows the progress bar)
//   wait-capture                  wait until the capture started by capture-start is in
//   open FILE                     open a snapshot file (waits until loaded and analysed, failing
//                                 after 10 minutes without progress) or a
//                                 saved recording (waits until read)
//   drop FILE                     as if FILE were dropped on the window (then waits as open)
//   demo OBJECTS [GENERATION [REFS]]  generate a demo heap (waits as open); REFS: extra
//                                 references per object on top of ~1 (2: a game heap's ~3)
//   demo-dialog                   open File > Generate demo heap... (Escape closes it)
//   select-doc N                  make the N-th open snapshot (1-based) the active one
//   select-type NAME              select a type in the active snapshot
//   select-object first|shown|INDEX  select an instance of the selected type (the largest /
//                                 the Instances view's first row) or an object index
//   filter TEXT                   the Types view filter ("" clears)
//   field-filter FIELD=VALUE      the Instances view's field filter ("" clears)
//   group-by type|site|type-site  how Types, Instances and the Dominator tree group (allocation
//                                 site, or type and site)
//   select-site all|unknown|TEXT  narrow Instances to the selected type's largest site whose
//                                 label contains TEXT (unknown: objects of unknown origin)
//   select-age largest|oldest|FRAMES  pick the Age view's bar (the one holding FRAMES-old objects)
//   select-finding INSPECTION [N]  select the N-th (1-based, default 1) finding of an automatic
//                                 inspection (duplicate-strings, event-handler-leaks, ...): its
//                                 type and first object, as the Inspections view's links do
//   view NAME counters|timeline|allocations|summary|inspections|types|instances|inspector|
//                                 roots|dominators|age|compare|connection
//   compare                       compare every open snapshot (oldest first)
//   leaks A B C                   Compare's leak filter: objects of snapshot C (1-based, as in
//                                 select-doc) allocated between A and B and still alive in C
//   save FILE                     save the active snapshot (format by extension)
//   close                         close the active snapshot, discarding unsaved changes
//   wait-idle [SECONDS]           wait until no background work is left (default 120)
//   wait-frames N                 draw N frames
//   wait-counters N               wait until N live counter samples have arrived
//   pause-counters                freeze the Live counters table and graphs (Pause)
//   resume-counters               Resume
//   export-counters FILE          write the kept counter samples as CSV (Export CSV...)
//   record-frames [SAMPLE_BYTES]  start recording frames and allocation samples (Record frames)
//   wait-game-frames N            wait until N frames of the game were recorded
//   select-frames FIRST [LAST]    select frames FIRST..LAST (the 1st..Nth recorded, 1-based;
//                                 LAST: the newest) in the Timeline
//   allocations-by type|method|stack   the Allocations view's grouping
//   save-recording FILE           save the Timeline's recording (frames, collections, markers,
//                                 allocation samples) as an .xrpm recording (waits until saved)
//   open-recording FILE           open a saved recording into the Timeline and Allocations views
//                                 (waits until read; fails with the reader's error). `open`
//                                 opens recordings too, by what the file holds
//   compare-allocations A B [BY]  Compare's Allocations mode: recordings A and B (`live`, or the
//                                 N-th opened recording, 1-based) per call site, BY stack (the
//                                 default), method, type or tag, as `xrpm allocations --diff`
//   auto-capture FIELD=VALUE...   fill the Capture panel's Auto capture fields and start it:
//                                 every=, on-growth=, on-gc-pause=, on-marker= (no spaces),
//                                 files=TEMPLATE, keep=N, game=on|off
//   wait-auto-captures N          wait until Auto capture saved N captures
//   stop-auto-capture             Stop auto capture
//   key ctrl+LETTER|LETTER|enter|escape   press (and release) a key, as a user would
//   type TEXT                     type characters into the focused text field
//   close-window                  as if the window's close button were pressed
//   expect-view NAME              fail unless NAME is the view shown
//   expect-dialog NAME            fail unless this dialog is open: none|open|save|export|demo|
//                                 close-unsaved|quit-unsaved
//   screenshot FILE               write a PNG of the window
//   state FILE                    write the session state as JSON
//   quit
//
// Thread-safety: pure functions and values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/diagnostics.h"

namespace xrpm::app {

// The script verbs, one table for the parser (ParseScript) and the GUI's runner:
// X(enumerator, name, how it takes its arguments (script.cpp), usage).
#define XRPM_SCRIPT_VERBS(X)                                                           \
  X(kLaunchEmulator, "launch-emulator", kRest, "launch-emulator SCENARIO [OPTION...]") \
  X(kLaunchMono, "launch-mono", kRest, "launch-mono sample|PROGRAM.exe [ARG...]")      \
  X(kMonoOptions, "mono-options", kOptRest, "mono-options [OPTION...]")                \
  X(kConnect, "connect", kRest, "connect HOST:PORT")                                   \
  X(kWaitDiscovered, "wait-discovered", kNumber, "wait-discovered DEVICES")            \
  X(kConnectDiscovered, "connect-discovered", kRest, "connect-discovered APP")         \
  X(kDisconnect, "disconnect", kNone, "disconnect")                                    \
  X(kCapture, "capture", kNone, "capture")                                             \
  X(kCaptureStart, "capture-start", kNone, "capture-start")                            \
  X(kWaitCapture, "wait-capture", kNone, "wait-capture")                               \
  X(kOpen, "open", kRest, "open FILE")                                                 \
  X(kDrop, "drop", kRest, "drop FILE")                                                 \
  X(kDemo, "demo", kNumbers13, "demo OBJECTS [GENERATION [REFS]]")                     \
  X(kDemoDialog, "demo-dialog", kNone, "demo-dialog")                                  \
  X(kSelectDoc, "select-doc", kNumber, "select-doc N")                                 \
  X(kSelectType, "select-type", kRest, "select-type NAME")                             \
  X(kSelectObject, "select-object", kRest, "select-object first|shown|INDEX")          \
  X(kFilter, "filter", kOptRest, "filter TEXT")                                        \
  X(kFieldFilter, "field-filter", kOptRest, "field-filter FIELD=VALUE")                \
  X(kGroupBy, "group-by", kRest, "group-by type|site|type-site")                       \
  X(kSelectSite, "select-site", kRest, "select-site all|unknown|TEXT")                 \
  X(kSelectAge, "select-age", kRest, "select-age largest|oldest|FRAMES")               \
  X(kSelectFinding, "select-finding", kRest, "select-finding INSPECTION [N]")          \
  X(kView, "view", kRest, "view NAME")                                                 \
  X(kCompare, "compare", kNone, "compare")                                             \
  X(kLeaks, "leaks", kNumbers3, "leaks A B C")                                         \
  X(kSave, "save", kRest, "save FILE")                                                 \
  X(kClose, "close", kNone, "close")                                                   \
  X(kWaitIdle, "wait-idle", kOptNumber, "wait-idle [SECONDS]")                         \
  X(kWaitFrames, "wait-frames", kNumber, "wait-frames N")                              \
  X(kWaitCounters, "wait-counters", kNumber, "wait-counters SAMPLES")                  \
  X(kPauseCounters, "pause-counters", kNone, "pause-counters")                         \
  X(kResumeCounters, "resume-counters", kNone, "resume-counters")                      \
  X(kExportCounters, "export-counters", kRest, "export-counters FILE")                 \
  X(kRecordFrames, "record-frames", kOptNumber, "record-frames [SAMPLE_BYTES]")        \
  X(kWaitGameFrames, "wait-game-frames", kNumber, "wait-game-frames N")                \
  X(kSelectFrames, "select-frames", kNumbers12, "select-frames FIRST [LAST]")          \
  X(kAutoCapture, "auto-capture", kRest, "auto-capture FIELD=VALUE...")                \
  X(kWaitAutoCaptures, "wait-auto-captures", kNumber, "wait-auto-captures N")          \
  X(kStopAutoCapture, "stop-auto-capture", kNone, "stop-auto-capture")                 \
  X(kAllocationsBy, "allocations-by", kRest, "allocations-by type|method|stack")       \
  X(kSaveRecording, "save-recording", kRest, "save-recording FILE")                    \
  X(kOpenRecording, "open-recording", kRest, "open-recording FILE")                    \
  X(kCompareAllocations, "compare-allocations", kRest,                                 \
    "compare-allocations live|N live|N [stack|method|type|tag]")                       \
  X(kScreenshot, "screenshot", kRest, "screenshot FILE")                               \
  X(kState, "state", kRest, "state FILE")                                              \
  X(kKey, "key", kRest, "key ctrl+LETTER|LETTER|enter|escape")                         \
  X(kType, "type", kRest, "type TEXT")                                                 \
  X(kCloseWindow, "close-window", kNone, "close-window")                               \
  X(kExpectView, "expect-view", kRest, "expect-view NAME")                             \
  X(kExpectDialog, "expect-dialog", kRest,                                             \
    "expect-dialog none|open|save|export|close-unsaved|quit-unsaved")                  \
  X(kQuit, "quit", kNone, "quit")

enum class ScriptVerb : uint8_t {
#define XRPM_SCRIPT_VERB_ENUM(e, name, args, usage) e,
  XRPM_SCRIPT_VERBS(XRPM_SCRIPT_VERB_ENUM)
#undef XRPM_SCRIPT_VERB_ENUM
};

struct ScriptStep {
  std::string verb;
  std::vector<std::string> args;
  uint64_t line = 0;
  ScriptVerb id{};               // `verb` as an enumerator
  std::string ToString() const;  // "line 3: select-type System.String"
};

// Parses script text; throws InputError ("file:line: ...") on an unknown verb or wrong
// arguments.
std::vector<ScriptStep> ParseScript(std::string_view text, const std::string& name);
std::vector<ScriptStep> ParseScriptFile(const std::string& path);

// The view names `view NAME` accepts.
const std::vector<std::string>& ScriptViewNames();
// The dialog names `expect-dialog NAME` accepts.
const std::vector<std::string>& ScriptDialogNames();

// A key of the `key` step: a lower-case letter ('a'..'z') or kEnter / kEscape, with Ctrl or not.
struct ScriptKey {
  static constexpr int kEnter = 256, kEscape = 257;
  int key = 0;
  bool ctrl = false;
};
std::optional<ScriptKey> ParseScriptKey(std::string_view name);

}  // namespace xrpm::app
