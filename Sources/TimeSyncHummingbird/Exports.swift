import TimeSync
