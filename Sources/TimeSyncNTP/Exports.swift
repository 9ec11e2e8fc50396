@_exported import TimeSync

// What this module's public declarations mention of the wire formats.
@_exported import struct TimeSyncWire.AddressPolicy
