@_exported import TimeSync
@_exported import TimeSyncSockets

// What this module's public declarations mention of the wire formats, and the errors its clients throw.
@_exported import struct TimeSyncWire.AddressPolicy
@_exported import struct TimeSyncWire.IPAddress
@_exported import struct TimeSyncWire.IPEndpoint
@_exported import struct TimeSyncWire.NTPConflictWindow
@_exported import struct TimeSyncWire.NTPExtensionField
@_exported import enum TimeSyncWire.NTPKissAction
@_exported import enum TimeSyncWire.NTPLeapIndicator
@_exported import enum TimeSyncWire.NTPMode
@_exported import struct TimeSyncWire.NTPPacketError
@_exported import struct TimeSyncWire.NTPReferenceID
@_exported import struct TimeSyncWire.NTPReply
@_exported import struct TimeSyncWire.NTPReplyError
@_exported import struct TimeSyncWire.NTPReplyLimits
@_exported import struct TimeSyncWire.NTPShortFormat
@_exported import struct TimeSyncWire.NTPTimestamp
