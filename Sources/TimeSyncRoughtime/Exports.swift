@_exported import TimeSync
@_exported import TimeSyncSockets

// What this module's public declarations mention of the wire formats, and the errors its client throws.
@_exported import struct TimeSyncWire.AddressPolicy
@_exported import struct TimeSyncWire.IPAddress
@_exported import struct TimeSyncWire.IPEndpoint
@_exported import struct TimeSyncWire.RoughtimeChain
@_exported import struct TimeSyncWire.RoughtimeError
@_exported import struct TimeSyncWire.RoughtimeReport
@_exported import struct TimeSyncWire.RoughtimeRequest
@_exported import struct TimeSyncWire.RoughtimeResponse
@_exported import enum TimeSyncWire.RoughtimeVersion
@_exported import struct TimeSyncWire.RoughtimeViolation
