import streamlit as st

st.title("Settings")
st.info("This page is being built.")
