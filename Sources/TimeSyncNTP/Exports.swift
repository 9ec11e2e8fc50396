@_exported import TimeSync

// What this module's public declarations mention of the wire formats and the sockets.
@_exported import struct TimeSyncWire.AddressPolicy
@_exported import struct TimeSyncSockets.NTPClientError
