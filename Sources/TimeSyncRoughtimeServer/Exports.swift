@_exported import TimeSync

// What this module's public declarations mention of the wire formats and server policies, and the errors it throws.
@_exported import struct TimeSyncWire.RoughtimeDelegation
@_exported import enum TimeSyncServerSupport.RoughtimeDropReason
@_exported import enum TimeSyncWire.RoughtimeVersion
@_exported import struct TimeSyncServerSupport.ServerBindError
