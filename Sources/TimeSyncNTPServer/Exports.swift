@_exported import TimeSyncNTP

// What this module's public declarations mention of the server policies, and the errors it throws.
@_exported import enum TimeSyncServerSupport.NTPAnswerHeader
@_exported import struct TimeSyncServerSupport.NTPClockState
@_exported import struct TimeSyncWire.NTPPacket
@_exported import enum TimeSyncServerSupport.NTPRequestAuthentication
@_exported import protocol TimeSyncServerSupport.NTPRequestAuthenticator
@_exported import enum TimeSyncServerSupport.NTPServerDropReason
@_exported import struct TimeSyncServerSupport.NTPServerPolicy
@_exported import struct TimeSyncServerSupport.ServerBindError
