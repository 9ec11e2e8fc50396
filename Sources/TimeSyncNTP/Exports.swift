@_exported import TimeSync
@_exported import TimeSyncSockets
