@_exported import TimeSyncNTP

// What this module's public declarations mention of the wire formats and server policies, and the errors it throws.
@_exported import enum TimeSyncServerSupport.NTPAnswerHeader
@_exported import struct TimeSyncWire.NTPPacket
@_exported import enum TimeSyncServerSupport.NTPRequestAuthentication
@_exported import protocol TimeSyncServerSupport.NTPRequestAuthenticator
@_exported import protocol TimeSyncWire.NTSCipher
@_exported import enum TimeSyncWire.NTSExtensionFieldType
@_exported import struct TimeSyncWire.NTSKEError
@_exported import struct TimeSyncWire.NTSKEErrorCode
@_exported import struct TimeSyncWire.NTSReplyError
@_exported import struct TimeSyncServerSupport.ServerBindError
